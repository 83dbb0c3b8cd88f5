/* A small kzalloc'ed object reads as zero, in any width, before anything
 * writes it: the error is reachable.
 * expect: cegar=false */
extern void *kzalloc(unsigned long size, unsigned int flags);
struct dev { int state; short flags; char tag; };
int main(void)
{
  struct dev *d = kzalloc(sizeof(struct dev), 208U);
  if (d && d->state == 0 && *(char *)&d->state == 0 && d->tag == 0) {
  ERROR:
    return 1;
  }
  return 0;
}
