"""Table calibration: the plane (markers or clicks), the zones, the room's card colours, saved as a profile.

The pile watcher needs only :meth:`calibration.profile.CalibrationProfile.load` and the
:class:`calibration.table_view.TableView` it returns from ``table_view()``.
"""
