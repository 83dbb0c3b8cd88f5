/* The serial number an unknown kernel function writes is not modelled, so
 * neither is its length: `strlen` of a string that is not a literal is a
 * value mpv does not model, and the path to the error needs it to differ
 * from 8. Under LDV's assumption that `strlen` of a string outside the
 * literals returns any value (it is a kernel function without a model
 * there), the error is reachable.
 * expect: cegar=false */
struct dev { char serial[9]; int users; };
extern unsigned long strlen(const char *s);
extern int read_serial(char *buf, int size);
struct dev d;
int main(void)
{
  unsigned long n;
  read_serial(d.serial, sizeof(d.serial));
  n = strlen(d.serial);
  if (n != 8) {
    d.users = 1;
  } else {
    d.users = 2;
  }
  if (d.users == 1) {
  ERROR:
    return 1;
  }
  return 0;
}
