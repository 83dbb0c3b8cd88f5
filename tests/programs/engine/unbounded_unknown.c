/* expect: symexec=unknown */
extern int __VERIFIER_nondet_int(void);
int main(void) { int x = 0; while (__VERIFIER_nondet_int()) { x = x + 2; } if (x == 1) { ERROR: ; } return 0; }
