/* memset clears the struct, so the error is unreachable: zeroing a span of
 * constant length is modelled in the analysis and in a path check alike.
 * expect: symexec=true cegar=true|unknown */
struct cfg { int mode; int flags; };
extern void *memset(void *s, int c, unsigned long n);
int main(void)
{
  struct cfg c;
  c.mode = 1;
  memset(&c, 0, sizeof(c));
  if (c.mode == 1) {
  ERROR:
    return 1;
  }
  return 0;
}
