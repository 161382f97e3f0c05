// PH204 (ignored-attribute)
@cluster(2)    //~ note PH204 "`@cluster` is not used by phobos-tools and is ignored"
kernel k() {
}
