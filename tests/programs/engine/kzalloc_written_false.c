/* A large kzalloc'ed object whose field is written before it is read: the
 * zeroed bytes do not matter and the error path is exact.
 * expect: cegar=false */
extern void *kzalloc(unsigned long size, unsigned int flags);
struct dev { int state; char buf[256]; };
int main(void)
{
  struct dev *d = kzalloc(sizeof(struct dev), 208U);
  if (!d)
    return 0;
  d->state = 3;
  if (d->state == 3) {
  ERROR:
    return 1;
  }
  return 0;
}
