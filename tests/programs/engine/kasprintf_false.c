/* kasprintf formats into a string it allocates: it writes nothing the
   module's pointers reach. Under LDV's assumption that a kernel function
   without a model leaves the module's memory alone, the error path is real.
   expect: cegar=false */
extern char *kasprintf(unsigned int gfp, const char *fmt, ...);
int devs[2];
int main(void) {
  char *name;
  devs[0] = 3;
  name = kasprintf(208U, "usb/%s", "dev");
  if (name != (char *)0 && devs[0] == 3) {
  ERROR:;
  }
  return 0;
}
