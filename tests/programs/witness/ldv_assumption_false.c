/* A kernel function without a model gets a pointer: the error path is real
 * under LDV's assumption that the function leaves the module's memory
 * alone. The witness says so, and the replay checks it under them.
 * prp: unreach-call.prp  expect: false */
extern void abort(void);
extern int register_device(int *dev);
void reach_error() { abort(); }

int main(void)
{
  int dev = 3;
  register_device(&dev);
  if (dev == 3)
    reach_error();
  return 0;
}
