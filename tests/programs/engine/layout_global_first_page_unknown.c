/* Where a global lies is the layout's choice: comparing its address with a
 * constant proves nothing either way.
 * expect: symexec=unknown cegar=unknown */
int g;
int main(void)
{
  if ((unsigned long)&g < 4096UL) {
  ERROR:
    return 1;
  }
  return 0;
}
