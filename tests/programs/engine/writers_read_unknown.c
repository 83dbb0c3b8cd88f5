/* The error depends on bytes memcpy wrote over a length the encoding does
 * not copy cell by cell (more than 64 bytes): their values are not
 * modelled, so never FALSE.
 * expect: cegar=unknown */
struct dev { int mode; int flags; int regs[30]; };
extern void *memcpy(void *dst, const void *src, unsigned long n);
int main(void)
{
  struct dev a, b;
  a.mode = 0;
  b.mode = 1;
  memcpy(&a, &b, sizeof(a));
  if (a.mode == 0) {
  ERROR:
    return 1;
  }
  return 0;
}
