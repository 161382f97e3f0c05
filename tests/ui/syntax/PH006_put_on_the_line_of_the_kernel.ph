// PH006 (brace-on-next-line)
kernel k()
{    //~ error PH006 "put `{` on the line of the kernel's header"
}
