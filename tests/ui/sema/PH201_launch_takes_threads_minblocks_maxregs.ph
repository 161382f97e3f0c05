// PH201 (bad-launch)
@launch    //~ error PH201 "`@launch` takes `(threads[, minBlocks[, maxRegs]])`"
kernel k() {
}
