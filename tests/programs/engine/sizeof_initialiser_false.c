/* An array's length may come from its initialiser (C11 6.7.9p22).
 * expect: symexec=false */
int main(void)
{
  int a[] = {1, 2, 3};
  char s[] = "hi\n";
  int d[] = {[4] = 1, 2};
  if (sizeof(a) == 12 && sizeof(s) == 4 && sizeof(d) == 24) {
  ERROR:
    return 1;
  }
  return 0;
}
