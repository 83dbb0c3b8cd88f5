/* A call of a function declared noreturn ends the path, as does
 * __builtin_unreachable().
 * expect: symexec=true cegar=true */
struct completion;
extern void complete_and_exit(struct completion *, long) __attribute__((__noreturn__));
extern _Noreturn void panic(const char *fmt, ...);
/* Returning from it is undefined: the path ends at the call all the same. */
__attribute__((noreturn)) static void stop(void) { }
int __VERIFIER_nondet_int(void);
int main(void)
{
  int n = __VERIFIER_nondet_int();
  if (n == 1) {
    complete_and_exit(0, 0);
    goto ERROR;
  }
  if (n == 2) {
    panic("x");
    goto ERROR;
  }
  if (n == 4) {
    stop();
    goto ERROR;
  }
  if (n == 3) {
    __builtin_unreachable();
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
