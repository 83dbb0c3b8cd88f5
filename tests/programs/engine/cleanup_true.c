/* Cleanups run on fall-through, return, break, continue and a goto out of
 * the variable's scope (not one within it), innermost variable first,
 * after a return value is computed.
 * expect: symexec=true cegar=true */
int count;
int last;
static void release(int *p) { count++; last = *p; }
static int f(int n)
{
  int a __attribute__((cleanup(release))) = 1;
  if (n) {
    int b __attribute__((cleanup(release))) = 2;
    return b;
  }
  return a;
}
static int g(int n)
{
  {
    int d __attribute__((cleanup(release))) = 9;
    if (n)
      goto out;
  again:
    n++;
    if (n < 2)
      goto again;
  }
out:
  return n;
}
int main(void)
{
  int i;
  if (f(1) != 2 || count != 2 || last != 1)
    goto ERROR;
  for (i = 0; i < 3; i++) {
    int c __attribute__((cleanup(release))) = 5;
    if (i == 0)
      continue;
    if (i == 1)
      break;
  }
  if (count != 4 || last != 5)
    goto ERROR;
  if (g(1) != 1 || g(0) != 2 || count != 6 || last != 9)
    goto ERROR;
  return 0;
ERROR:
  return 1;
}
