// PH003 (unexpected-character)
kernel k() {
	let é = 1    //~ error PH003 "`é` is not a name: names are ASCII letters"
}
