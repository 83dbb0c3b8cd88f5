/* A callback called through an initialised table of function pointers.
 * expect: cegar=true */
struct ops { void (*open)(void); };
int opened = 0;
void my_open(void) { opened = 1; }
struct ops o = { .open = my_open };
int main(void) {
  o.open();
  if (!opened) { ERROR: ; }
  return 0;
}
