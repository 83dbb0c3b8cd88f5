/* A kzalloc'ed object too large to zero byte by byte: its contents are
 * arbitrary in the encoding, so an error that needs them zero is not
 * confirmed (it is reachable).
 * expect: cegar=unknown */
extern void *kzalloc(unsigned long size, unsigned int flags);
struct dev { int state; char buf[256]; };
int main(void)
{
  struct dev *d = kzalloc(sizeof(struct dev), 208U);
  if (d && d->state == 0) {
  ERROR:
    return 1;
  }
  return 0;
}
