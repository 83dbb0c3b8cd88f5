/* Rule 106_1a (USB gadget class / chrdev registration order). */
struct class { int id; };
struct usb_gadget_driver { int speed; };
struct class *__class_create(void *owner, const char *name, void *key);
void class_destroy(struct class *c);
int register_chrdev_region(unsigned int from, unsigned int count, const char *name);
void unregister_chrdev_region(unsigned int from, unsigned int count);
int usb_gadget_register_driver(struct usb_gadget_driver *d);
int usb_gadget_unregister_driver(struct usb_gadget_driver *d);
struct usb_gadget_driver drv;

void bad_Order(void) {
  if (usb_gadget_register_driver(&drv) == 0) {
    if (register_chrdev_region(0, 1, "g") == 0) unregister_chrdev_region(0, 1);
    usb_gadget_unregister_driver(&drv);
  }
}
void safe_Order(void) {
  if (register_chrdev_region(0, 1, "g") == 0) {
    if (usb_gadget_register_driver(&drv) == 0) usb_gadget_unregister_driver(&drv);
    unregister_chrdev_region(0, 1);
  }
}
void bad_Double(void) {
  struct class *c = __class_create((void *)0, "g", (void *)0);
  struct class *d = __class_create((void *)0, "g", (void *)0);
}
void safe_Double(void) {
  struct class *c = __class_create((void *)0, "g", (void *)0);
  /* __class_create returns an error pointer on failure (IS_ERR_OR_NULL). */
  if (c && (unsigned long)c < 18446744073709547521UL) class_destroy(c);
}
void bad_NotRegistered(void) { usb_gadget_unregister_driver(&drv); }
void safe_NotRegistered(void) { if (usb_gadget_register_driver(&drv) == 0) usb_gadget_unregister_driver(&drv); }
void bad_AtExit(void) { int r = register_chrdev_region(0, 1, "g"); }
void safe_AtExit(void) { if (register_chrdev_region(0, 1, "g") == 0) unregister_chrdev_region(0, 1); }
int main(void) { return 0; }
