// PH201 (bad-launch)
@launch(128, 0)    //~ error PH201 "minBlocks must be at least 1, not 0"
kernel k() {
}
