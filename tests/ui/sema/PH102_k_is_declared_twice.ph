// PH102 (redeclared-name)
kernel k() {
}
kernel k() {    //~ error PH102 "`k` is declared twice"
}
