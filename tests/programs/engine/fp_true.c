/* expect: symexec=true cegar=true */
int inc(int x) { return x + 1; } int dec(int x) { return x - 1; }
extern int __VERIFIER_nondet_int(void);
int main(void) { int (*f)(int) = __VERIFIER_nondet_int() ? inc : dec; int r = f(3); if (r != 2 && r != 4) { ERROR: ; } return 0; }
