/* Kernel functions that write a buffer: the error depends only on memory
 * they do not write, so the path is real (the written bytes are never read
 * afterwards).
 * expect: cegar=false */
struct dev { char name[32]; int users; char cfg[16]; };
extern void *memcpy(void *dst, const void *src, unsigned long n);
extern int sprintf(char *buf, const char *fmt, ...);
struct dev d;
int main(void)
{
  char src[16];
  void *r;
  d.users = 1;
  sprintf(d.name, "dev%d", 3);
  r = memcpy(d.cfg, src, sizeof(d.cfg));
  if (d.users == 1 && r == (void *)d.cfg) {
  ERROR:
    return 1;
  }
  return 0;
}
