/* The lengths an initialiser gives are exact.
 * expect: symexec=true */
static char g[] = "abc";
int main(void)
{
  int a[] = {1, 2, 3};
  if (sizeof(a) != 12 || sizeof(g) != 4)
    goto ERROR;
  return 0;
ERROR:
  return 1;
}
