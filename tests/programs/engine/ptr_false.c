/* expect: symexec=false cegar=false */
extern int __VERIFIER_nondet_int(void);
struct s { int a; int *p; };
int main(void) { int x = 0; struct s v; v.p = &x; v.a = __VERIFIER_nondet_int(); *v.p = v.a + 1; if (x == 5) { ERROR: ; } return 0; }
