// PH204 (ignored-attribute)
@foo    //~ note PH204 "`@foo` is not used"
@bar(1, x = 2)
kernel k() {
}
