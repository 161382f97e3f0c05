// PH103 (reserved-name)
fn sum() {    //~ error PH103 "`sum` is a built-in and cannot name a function"
}
