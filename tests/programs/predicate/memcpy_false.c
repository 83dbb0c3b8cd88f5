/* The error needs the values memcpy copied (a field written before the
 * copy, read through the copy in a byte buffer): a real path.
 * expect: cegar=false */
struct msg { int type; long len; unsigned char data[4]; };
extern void *memcpy(void *dst, const void *src, unsigned long n);
extern int __VERIFIER_nondet_int(void);
unsigned char buf[32];
int main(void)
{
  struct msg b;
  struct msg *m;
  b.type = __VERIFIER_nondet_int();
  b.len = 7;
  __builtin_memcpy(buf + 4, &b, sizeof(b));
  m = (struct msg *)(buf + 4);
  if (m->len == 7 && m->type == 3) {
  ERROR:
    return 1;
  }
  return 0;
}
