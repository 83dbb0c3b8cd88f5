/* expect: symexec=true cegar=true */
extern int __VERIFIER_nondet_int(void);
struct s { int a; int *p; };
int main(void) { int x = 0; struct s v; v.p = &x; v.a = __VERIFIER_nondet_int(); __VERIFIER_assume(v.a > 0 && v.a < 10); *v.p = v.a + 1; if (x == 0) { ERROR: ; } return 0; }
