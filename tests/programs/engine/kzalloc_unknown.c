/* kzalloc returns zeroed memory: the error is unreachable, and a model with
 * arbitrary heap contents must not report FALSE.
 * expect: symexec=unknown cegar=true|unknown */
extern void *kzalloc(unsigned long size, unsigned int flags);
struct dev { int state; };
int main(void)
{
  struct dev *d = kzalloc(sizeof(struct dev), 208U);
  if (d && d->state == 7) {
  ERROR:
    return 1;
  }
  return 0;
}
