/*
 * dragsource: a tiny GTK 3 window that is an XDND drag source, for the
 * desktop test. It offers the URIs given on its command line as
 * text/uri-list, the way a file manager offers dropped files. Dragging it
 * (xdotool: press on it, move onto the Quire window, release) performs a
 * real XDND drop there.
 *
 *   dragsource X Y URI...    window at (X, Y); prints "ready" once shown,
 *                            "sent" when the target took the data and
 *                            "end" when the drag ends.
 *
 * Built by the test: cc dragsource.c $(pkg-config --cflags --libs gtk+-3.0)
 */
#include <gtk/gtk.h>
#include <stdio.h>
#include <stdlib.h>

static gchar **uris;

static void on_data_get(GtkWidget *w, GdkDragContext *ctx, GtkSelectionData *data, guint info, guint time, gpointer user)
{
    gtk_selection_data_set_uris(data, uris);
    printf("sent\n");
    fflush(stdout);
}

static void on_drag_end(GtkWidget *w, GdkDragContext *ctx, gpointer user)
{
    printf("end\n");
    fflush(stdout);
}

static gboolean on_mapped(GtkWidget *w, GdkEvent *ev, gpointer user)
{
    printf("ready\n");
    fflush(stdout);
    return FALSE;
}

int main(int argc, char **argv)
{
    gtk_init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: dragsource X Y URI...\n");
        return 2;
    }
    uris = &argv[3]; /* argv[argc] is NULL: a NULL-terminated list */

    GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_title(GTK_WINDOW(win), "dragsource");
    gtk_window_set_default_size(GTK_WINDOW(win), 72, 72);
    gtk_window_move(GTK_WINDOW(win), atoi(argv[1]), atoi(argv[2]));
    gtk_window_set_keep_above(GTK_WINDOW(win), TRUE);

    GtkWidget *box = gtk_event_box_new();
    gtk_container_add(GTK_CONTAINER(box), gtk_label_new("drag"));
    gtk_container_add(GTK_CONTAINER(win), box);

    static const GtkTargetEntry targets[] = {{"text/uri-list", 0, 0}};
    gtk_drag_source_set(box, GDK_BUTTON1_MASK, targets, 1, GDK_ACTION_COPY);
    g_signal_connect(box, "drag-data-get", G_CALLBACK(on_data_get), NULL);
    g_signal_connect(box, "drag-end", G_CALLBACK(on_drag_end), NULL);
    g_signal_connect(win, "map-event", G_CALLBACK(on_mapped), NULL);
    g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
    gtk_widget_show_all(win);
    gtk_main();
    return 0;
}
