/* Two initialised definitions of one global: an error. A tentative
 * definition and an extern declaration are not.
 * expect: symexec=error cegar=error */
extern int g;
int g;
int g = 1;
int g = 2;
int main(void)
{
  if (g == 2) {
  ERROR:
    return 1;
  }
  return 0;
}
