/* memset with a value the module does not know writes unknown bytes over
 * the struct: the error is reachable in reality, but no error path through
 * bytes the encoding does not know is confirmed.
 * expect: symexec=unknown cegar=unknown */
struct cfg { int mode; int flags; };
extern void *memset(void *s, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
int main(void)
{
  struct cfg c;
  c.mode = 0;
  memset(&c, __VERIFIER_nondet_int(), sizeof(c));
  if (c.mode == 1) {
  ERROR:
    return 1;
  }
  return 0;
}
