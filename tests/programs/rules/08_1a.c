/* Rule 08_1a (module references): bad_E reaches error E, safe_E no error. */
struct module { int refs; };
void __module_get(struct module *m);
int try_module_get(struct module *m);
void module_put(struct module *m);
void module_put_and_exit(long code);
unsigned int module_refcount(struct module *m);
struct module mod;

void bad_LessInitial(void) { __module_get(&mod); module_put(&mod); module_put(&mod); }
void safe_LessInitial(void) { __module_get(&mod); module_put(&mod); module_put((struct module *)0); }
void bad_MoreAtExit(void) { if (try_module_get(&mod)) { __module_get(&mod); module_put(&mod); } }
void safe_MoreAtExit(void) {
  if (try_module_get(&mod)) {
    if (module_refcount(&mod) == 1) module_put_and_exit(0);
  }
}
int main(void) { return 0; }
