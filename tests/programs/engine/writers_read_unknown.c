/* The error depends on bytes memcpy wrote, whose values the encoding does
 * not know: never FALSE. */
struct dev { int mode; int flags; };
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
