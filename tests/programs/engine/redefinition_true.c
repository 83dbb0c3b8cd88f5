/* Declarations, tentative definitions and a GNU extern inline body before
 * the real one are no redefinitions.
 * expect: symexec=true cegar=true */
extern int g;
int g;
int g = 1;
int f(int);
extern inline __attribute__((gnu_inline)) int f(int x) { return x + 100; }
int f(int x) { return x; }
int main(void)
{
  if (g != 1)
    goto ERROR;
  return 0;
ERROR:
  return 1;
}
