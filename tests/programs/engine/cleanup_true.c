/* Cleanups run on fall-through, return, break and continue, innermost
 * variable first, after a return value is computed. */
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
  return 0;
ERROR:
  return 1;
}
