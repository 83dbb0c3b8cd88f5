/* An external function receives the address of x and may write it: the
 * error is reachable in reality, so it must not be proved unreachable. */
extern unsigned long copy_from_user(void *to, const void *from, unsigned long n);
int main(void)
{
  int x = 0;
  copy_from_user(&x, (void *)0, sizeof(x));
  if (x == 5) {
  ERROR:
    return 1;
  }
  return 0;
}
