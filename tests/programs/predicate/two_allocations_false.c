/* Two allocations in different blocks (a call in between) are different
   objects: p != q, so ERROR is reachable when both succeed.
   expect: cegar=false */
extern void *kmalloc(unsigned long size, unsigned int flags);
void touch(void) { }
int main(void) {
  char *p = kmalloc(8, 0);
  touch();
  char *q = kmalloc(8, 0);
  if (p != 0 && q != 0 && p != q) { ERROR: ; }
  return 0;
}
