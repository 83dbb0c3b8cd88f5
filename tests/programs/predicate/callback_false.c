/* expect: cegar=false */
struct ops { void (*open)(int); };
int opened = 0;
void my_open(int how) { if (how > 2) opened = 1; }
struct ops o = { .open = my_open };
extern int __VERIFIER_nondet_int(void);
int main(void) {
  o.open(__VERIFIER_nondet_int());
  if (!opened) { ERROR: ; }
  return 0;
}
