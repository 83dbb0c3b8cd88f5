/* memset clears the struct, so the error is unreachable; an encoding that
 * ignored the call would find a "feasible" path: it must not say FALSE. */
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
