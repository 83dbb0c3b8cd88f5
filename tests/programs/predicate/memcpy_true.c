/* memcpy of a constant, small length copies every field, also into a byte
 * buffer read back through a struct pointer (__builtin_memcpy): the
 * copied values rule the error out.
 * expect: cegar=true */
struct msg { int type; long len; unsigned char data[4]; };
extern void *memcpy(void *dst, const void *src, unsigned long n);
extern int __VERIFIER_nondet_int(void);
unsigned char buf[32];
int main(void)
{
  struct msg a, b;
  struct msg *m;
  b.type = __VERIFIER_nondet_int();
  b.len = 7;
  b.data[2] = 'x';
  memcpy(&a, &b, sizeof(a));
  __builtin_memcpy(buf + 4, &b, sizeof(b));
  m = (struct msg *)(buf + 4);
  if (a.type != b.type || a.len != 7 || a.data[2] != 'x' || m->len != 7) {
  ERROR:
    return 1;
  }
  return 0;
}
