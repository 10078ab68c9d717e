"""The hardware edge: camera, buttons and speaker, each a small interface with a real device and a fake.

The same code runs on a Raspberry Pi and in CI: tests swap the device (a scripted camera, gpiozero's
MockFactory pins, a recording speaker) and keep every other line the same.
"""
