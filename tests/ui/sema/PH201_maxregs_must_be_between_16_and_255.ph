// PH201 (bad-launch)
@launch(128, 1, 300)    //~ error PH201 "maxRegs must be between 16 and 255, not 300"
kernel k() {
}
