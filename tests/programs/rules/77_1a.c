/* Rule 77_1a (allocation while the USB device mutex is held). */
struct usb_device { int devnum; };
void usb_lock_device(struct usb_device *d);
void usb_unlock_device(struct usb_device *d);
int usb_trylock_device(struct usb_device *d);
void *kmalloc(unsigned long size, unsigned int flags);
void *vmalloc(unsigned long size);
void *p;

void bad_WrongFlags(struct usb_device *d) { usb_lock_device(d); p = kmalloc(4, 208); usb_unlock_device(d); }
void safe_WrongFlags(struct usb_device *d) {
  if (usb_trylock_device(d)) { p = kmalloc(4, 16); usb_unlock_device(d); }
  p = kmalloc(4, 208);
}
void bad_Nonatomic(struct usb_device *d) { usb_lock_device(d); p = vmalloc(4); }
void safe_Nonatomic(struct usb_device *d) { usb_lock_device(d); usb_unlock_device(d); p = vmalloc(4); }
int main(void) { return 0; }
