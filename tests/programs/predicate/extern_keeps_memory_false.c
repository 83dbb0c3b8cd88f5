/* A kernel function without a model gets a pointer. Under LDV's assumption
   that it leaves the module's memory alone the error path is real; the
   counterexample says so.
   expect: cegar=false */
extern int register_device(int *dev);
int flag = 0;
int main(void) {
  int dev = 3;
  register_device(&dev);
  flag = 1;
  if (flag == 1 && dev == 3) { ERROR: ; }
  return 0;
}
