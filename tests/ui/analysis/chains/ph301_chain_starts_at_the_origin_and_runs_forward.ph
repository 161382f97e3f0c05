// ph301 chain starts at the origin and runs forward
// each step names what it makes differ, in order: a, b, c, the condition
// the chain is in causal order: origin first, one step per binding it passes through
@launch(256)
kernel k(A: tensor<f32>[1, 32]) {
  let a = ctx.lane    //~ chain "`ctx.lane` differs between lanes, so `a` does"
  let b = a * 2    //~ chain "`a` differs between lanes, so `b` does"
  var c = 0
  c = b + 1    //~ chain "`b` differs between lanes, so `c` does"
  if c > 3 {    //~ chain "`c` differs between lanes, so this condition does"
    barrier()            //~ error PH301
  }
}
