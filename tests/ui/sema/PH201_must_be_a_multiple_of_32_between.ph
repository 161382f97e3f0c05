// PH201 (bad-launch)
@launch(100)    //~ error PH201 "must be a multiple of 32 between 32 and 1024, not 100"
kernel k() {
}
