/* Where a global lies is the layout's choice: ordering its address against
 * a constant decides nothing, as its integer value does not.
 * expect: symexec=unknown cegar=unknown */
int g;
int main(void)
{
  int *p = &g;
  if ((void *)p <= (void *)2012) {
  ERROR:
    return 1;
  }
  return 0;
}
