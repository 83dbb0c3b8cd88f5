/* snprintf's result is used: the bytes it wrote are not modelled, and
 * neither is their count. Under LDV's assumption that the count is any
 * non-negative value, the error (which reads only memory snprintf does not
 * write) is reachable.
 * expect: cegar=false */
struct dev { char name[16]; int users; };
extern int snprintf(char *buf, unsigned long size, const char *fmt, ...);
struct dev d;
int main(void)
{
  int n;
  d.users = 0;
  n = snprintf(d.name, sizeof(d.name), "dev%d", 3);
  if (n < 0) {
    d.users = 5;
  }
  d.users = d.users + 1;
  if (d.users == 1) {
  ERROR:
    return 1;
  }
  return 0;
}
