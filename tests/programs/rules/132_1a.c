/* Rule 132_1a (USB device references). */
struct usb_device { int devnum; };
struct usb_device *usb_get_dev(struct usb_device *d);
void usb_put_dev(struct usb_device *d);

void bad_BadPut(struct usb_device *d) { usb_put_dev(d); }
void safe_BadPut(void) { usb_put_dev((struct usb_device *)0); }
void bad_Leak(struct usb_device *d) { struct usb_device *x = usb_get_dev(d); }
struct usb_device dev;
void safe_Leak(void) { struct usb_device *x = usb_get_dev(&dev); usb_put_dev(&dev); }
int main(void) { return 0; }
