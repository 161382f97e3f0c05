// PH201 (bad-launch)
@launch(BLOCK)    //~ error PH201 "`BLOCK` is not one"
kernel k() {
}
