/* expect: cegar=true */
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
int main(void) {
  int x = __VERIFIER_nondet_int();
  __VERIFIER_assume(x > 5);
  while (x < 100) x++;
  if (x <= 5) { ERROR: ; }
  return 0;
}
