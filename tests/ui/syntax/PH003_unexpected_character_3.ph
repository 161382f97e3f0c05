// PH003 (unexpected-character)
kernel k() {
	let a = 1²    //~ error PH003 "unexpected character '²'"
}
