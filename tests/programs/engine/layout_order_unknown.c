/* Two heap objects lie in either order depending on the layout.
 * expect: symexec=unknown cegar=unknown */
extern void *malloc(unsigned long size);
int main(void)
{
  void *p = malloc(16);
  void *q = malloc(16);
  if (p != 0 && q != 0 && (unsigned long)p > (unsigned long)q) {
  ERROR:
    return 1;
  }
  return 0;
}
