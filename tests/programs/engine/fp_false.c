/* expect: symexec=false cegar=false */
int inc(int x) { return x + 1; } int dec(int x) { return x - 1; }
extern int __VERIFIER_nondet_int(void);
int main(void) { int (*f)(int) = __VERIFIER_nondet_int() ? inc : dec; if (f(3) == 2) { ERROR: ; } return 0; }
