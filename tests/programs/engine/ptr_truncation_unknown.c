/* Two live objects never share an address, but their addresses truncated to
   32 bits may be equal or not depending on the layout: no counterexample.
   expect: symexec=true|unknown cegar=true|unknown */
extern void *malloc(unsigned long size);
int main(void) {
  int *p1 = malloc(4);
  int *p2 = malloc(4);
  if (p1 != 0 && p2 != 0 && (unsigned int)p1 == (unsigned int)p2) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
