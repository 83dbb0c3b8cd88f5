/* An external function receives the address of x and may write it: the
 * error is reachable in reality, so it must not be proved unreachable; what
 * the device sends is not modelled, so no error path is confirmed either.
 * expect: symexec=unknown cegar=unknown */
extern int dev_read(void *to, unsigned long n);
int main(void)
{
  int x = 0;
  dev_read(&x, sizeof(x));
  if (x == 5) {
  ERROR:
    return 1;
  }
  return 0;
}
