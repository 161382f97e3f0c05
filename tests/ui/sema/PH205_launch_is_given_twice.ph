// PH205 (duplicate-attribute)
@launch(128)
@launch(64)    //~ error PH205 "`@launch` is given twice"
kernel k() {
}
